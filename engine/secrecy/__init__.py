"""What each reader may know: the player's view, who may hear each private event, the leak checks, the table's
report."""
