"""The effects log: what nodes did to the outside world, one JSON object per line."""
