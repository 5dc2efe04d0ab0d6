#!/usr/bin/env python3
"""Placeholder until the generator lands: emits no files."""
import sys
sys.exit(0)
