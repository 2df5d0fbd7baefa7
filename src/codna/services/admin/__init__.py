"""Running a workspace: backing it up, checking it, importing and exporting documents, and the
demo workspace."""
