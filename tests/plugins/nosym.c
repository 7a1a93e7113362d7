/* A shared object without the animkit_codec entry symbol. Its own symbol
 * whose name holds the entry's is no look-alike: the refusal must not name
 * it as the entry under another linkage. */
__attribute__((used)) static int animkit_codec_calls;

int not_the_entry(void);
int not_the_entry(void) { return ++animkit_codec_calls; }
