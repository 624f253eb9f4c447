"""The card games themselves: the rules (engines/) and the bots (bots/), pure Python."""
