// placeholder
import Testing
