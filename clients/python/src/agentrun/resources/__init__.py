"""The client's resources: one method per operation of the route table, grouped as the table's tags group them (docs/python.md, "Resources")."""
