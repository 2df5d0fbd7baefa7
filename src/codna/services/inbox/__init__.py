"""The inbox: what waits on a member's decision, what they were told, and the live streams
that keep it up to date."""
