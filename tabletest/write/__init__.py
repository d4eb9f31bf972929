"""Writers: records and files land whole (temporary name, then rename) so a kill never leaves half a file."""
