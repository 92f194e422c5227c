"""A random-program fuzzer for sourcediff: generator, reference and campaign runner."""
