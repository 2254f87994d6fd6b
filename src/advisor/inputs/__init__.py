"""What the team tells advisor: the answers model, Hugging Face model configs, the guided questions, the init template."""
