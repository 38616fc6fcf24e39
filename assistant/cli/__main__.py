"""``python -m assistant.cli``: how installed timers and tests run this Hippo."""

from __future__ import annotations

import sys

from assistant.cli.commands import main

sys.exit(main())
