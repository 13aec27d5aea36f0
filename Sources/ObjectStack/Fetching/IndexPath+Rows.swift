import Foundation

#if !canImport(UIKit) && !canImport(AppKit)
    // UIKit and AppKit add `section`, `row` and `item` to IndexPath; Foundation alone (as on Linux) does not, and
    // fetched results controllers speak in them.
    extension IndexPath {
        /// An index path of a row in a section.
        public init(row: Int, section: Int) {
            self.init(indexes: [section, row])
        }

        /// An index path of an item in a section.
        public init(item: Int, section: Int) {
            self.init(indexes: [section, item])
        }

        /// The section: the first index.
        public var section: Int { self[0] }
        /// The row in the section: the second index.
        public var row: Int { self[1] }
        /// The item in the section: the second index.
        public var item: Int { self[1] }
    }
#endif
