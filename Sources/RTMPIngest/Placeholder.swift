/// Placeholder until the module lands.
enum RTMPIngestPlaceholder {}
