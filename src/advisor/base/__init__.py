"""Foundation every stage may use: errors, translation, safe YAML loading, numbers and units."""
