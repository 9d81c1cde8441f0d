__version__ = "0.1.0"  # the one place of the version (pyproject reads it): no metadata lookup to know it
