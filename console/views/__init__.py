"""The console's pages: the home page, and the sections of the match, user and tournament
pages (each ModelAdmin adapts; these read)."""
