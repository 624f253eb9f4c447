# LOCAL SCRATCH (uncommitted) until the pairing library lands.
