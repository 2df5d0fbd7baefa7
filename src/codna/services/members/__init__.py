"""Members and access: people and agents, their grants, tokens and sessions, and the rate
limits on what one member may ask for."""
