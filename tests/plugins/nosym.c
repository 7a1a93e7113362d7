/* A shared object without the animkit_codec entry symbol. */
int not_the_entry(void);
int not_the_entry(void) { return 42; }
