int pclnrt_placeholder_(void); int pclnrt_placeholder_(void) { return 0; }
