/// Placeholder until the module lands.
enum SluiceAppPlaceholder {}
