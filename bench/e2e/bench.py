#!/usr/bin/env python3
"""Entry point of the end-to-end benchmark; normally run through bench/e2e/run."""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hwbench.cli import main  # noqa: E402

sys.exit(main())
