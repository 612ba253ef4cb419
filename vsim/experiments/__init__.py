"""Paper studies: the scenarios behind each claim, the claim values, figures and comparison tables."""
