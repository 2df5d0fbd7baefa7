"""Events and automations: live updates to whoever listens, the outbox each change of a page
writes, the automations it starts, and the routines' runs."""
