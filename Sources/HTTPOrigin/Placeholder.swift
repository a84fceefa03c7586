/// Placeholder until the module lands.
enum HTTPOriginPlaceholder {}
