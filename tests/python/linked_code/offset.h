// Included by functions.cu from its own folder.
#define OFFSET 0.0f
