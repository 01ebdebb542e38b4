"""The workspace tools: confined file access, atomic edits, the guard and the ignore rules."""
