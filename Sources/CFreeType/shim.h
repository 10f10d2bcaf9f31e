// FreeType (libfreetype-dev) for the text overlay: faces, glyph outlines, and rendering an
// outline straight into an 8-bit coverage bitmap the overlay owns (FT_Outline_Get_Bitmap).
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_OUTLINE_H
