"""`tally post`: being written (issue work in progress)."""
