"""The only writers of match state: every change goes through ``unit_of_work.match_change``."""
