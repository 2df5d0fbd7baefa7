"""The pure text machinery: the edit language, the heading scanner, diffs and undo.

No I/O and no database; of CoDNA it imports only `codna.errors`.
"""

from codna.markdown.apply import apply_edits
from codna.markdown.diff import diff_stats, unified_diff
from codna.markdown.edits import (
    Append,
    DeleteSection,
    Edit,
    InsertAfter,
    InsertBefore,
    Replace,
    ReplaceSection,
    edits_to_wire,
    parse_edits,
)
from codna.markdown.revert import undo
from codna.markdown.sections import Heading, find_section, scan_headings

__all__ = [
    "Append",
    "DeleteSection",
    "Edit",
    "Heading",
    "InsertAfter",
    "InsertBefore",
    "Replace",
    "ReplaceSection",
    "apply_edits",
    "diff_stats",
    "edits_to_wire",
    "find_section",
    "parse_edits",
    "scan_headings",
    "undo",
    "unified_diff",
]
