"""The judgegrid console script with the scripted provider registered: for tests that run it as
a process."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/

from judgegrid.entry import main
from support import scripted

if __name__ == "__main__":
    scripted.register()
    scripted.SCRIPT.delay_s = float(os.environ.get("SCRIPTED_DELAY_S", "0"))
    main()
