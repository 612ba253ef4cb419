"""Allow ``python -m vsim``."""

import sys

from vsim.cli import main

sys.exit(main())
