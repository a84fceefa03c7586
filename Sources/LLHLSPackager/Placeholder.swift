/// Placeholder until the module lands.
enum LLHLSPackagerPlaceholder {}
