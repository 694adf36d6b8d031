"""The physical table: the sensing binding, table sync against the sensed board, and the list of what to do at the table (no Kivy)."""
