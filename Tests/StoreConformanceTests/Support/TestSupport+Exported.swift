// Every file of the suite sees the shared test support (store kinds, temporary stacks, the seeded generator,
// the library model) without importing it itself.
@_exported import TestSupport
