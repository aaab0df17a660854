"""Yosys `stat -json` output as Python data. Standalone (json and re only):
the FPGA flows' report scripts load this file by path, without the tessera
package and its compiled module."""

import json
import re


def parse_stat_json(text):
    """Yosys's `stat -json` output. Yosys 0.23 also logs the hierarchy's
    instance counts (`  <module>  <count>` text lines) into it when the design
    has a top with submodules; those lines are dropped (the "design" totals
    already count every instance)."""
    keep = [line for line in text.splitlines() if '"' in line or re.fullmatch(r"\s*[\[\]{},]*\s*", line)]
    return json.loads("\n".join(keep))
