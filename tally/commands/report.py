"""`tally report`: being written (issue work in progress)."""
