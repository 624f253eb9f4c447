"""The operator's console: Django's admin site with an operator's home page, a match page,
a user page and the organiser's tournament controls (docs/console.md)."""
