/* version: the one version string of allocbuild (--version, manifests, relink records) */
#ifndef AB_VERSION_H
#define AB_VERSION_H

#define AB_VERSION "0.1.0"
/* what manifests name as the tool that wrote them */
#define AB_TOOL "allocbuild " AB_VERSION

#endif
