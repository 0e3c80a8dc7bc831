"""`tally warc`: being written (issue work in progress)."""
