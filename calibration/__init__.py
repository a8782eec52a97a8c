"""What is learned about one table: grid corners, edition, colour models, reference image."""
