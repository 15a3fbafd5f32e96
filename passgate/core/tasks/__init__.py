"""Task sets: the loaders for each benchmark format, their pins and known defects."""
