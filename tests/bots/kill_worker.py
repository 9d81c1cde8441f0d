"""The first start anywhere (it creates $KILL_MARKER) kills its parent, the Dask worker playing the game, with
SIGKILL (a worker dying mid-game, as with os._exit); every later start is the heuristic sample bot."""

import os
import signal
import sys
from pathlib import Path

try:
    os.close(os.open(os.environ["KILL_MARKER"], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
except FileExistsError:
    heuristic = Path(__file__).resolve().parents[2] / "sample_bots" / "heuristic_bot.py"
    os.execv(sys.executable, [sys.executable, str(heuristic)])
os.kill(os.getppid(), signal.SIGKILL)
sys.exit(0)
