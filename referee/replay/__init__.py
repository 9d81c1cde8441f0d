"""The replay log: its record schema, the writer, the reader, and the timeline that verifies and resumes it."""
