"""What advisor knows before it sees a question: GPU catalog, strategy registry, rule vocabulary and rule packs."""
