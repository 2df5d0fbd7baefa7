"""Pages, their revisions and their index: creating, reading, editing and finding pages, and
what is kept beside them (links, outlines, the search index, what `output` may hold)."""
