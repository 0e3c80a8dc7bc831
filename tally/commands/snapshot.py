"""`tally snapshot`: being written (issue work in progress)."""
