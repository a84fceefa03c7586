/// Placeholder until the module lands.
enum CodecFormatsPlaceholder {}
