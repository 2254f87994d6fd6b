"""From answers to a plan: facts, the choice, what it takes, the deployment, and the typed report."""
