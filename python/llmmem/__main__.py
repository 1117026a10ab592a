"""``python -m llmmem ARGS``: the same as the ``llmmem`` command (the C CLI)."""

import sys

from ._cli import main

sys.exit(main())
