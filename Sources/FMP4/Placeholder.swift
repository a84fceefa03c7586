/// Placeholder until the module lands.
enum FMP4Placeholder {}
