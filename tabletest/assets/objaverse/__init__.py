"""Real objects from Objaverse 1.0: hub and mirror routing (`hub`), licence and size policy (`policy`),
resolution, download and verification (`fetch`), pins (`lock`) and attribution (`credits`)."""
