"""The engines a run may ask for, by name: what ``--engine`` offers and ``Simulation`` accepts.

``"events"`` is the SimPy model, ``"uncontended"`` the closed form (only for hosts where no
world ever waits for a CPU) and ``"auto"`` the closed form where it applies, the events
elsewhere. Plain names in a module of their own, so that the command line offers them
without loading the engines.
"""

ENGINES = ("auto", "events", "uncontended")
