"""The performance benchmark (`make bench`, `python -m bench`): engine, service, load and map figures.

Not part of the tests: it measures, it does not assert. The targets it is read against are in docs/performance.md.
"""
