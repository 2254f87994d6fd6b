"""The Textual front end. Nothing in the core imports this package."""
