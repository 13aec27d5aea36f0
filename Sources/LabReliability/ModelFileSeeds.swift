import Foundation
import LabWorkloads
import ObjectStack

/// The model-file fuzzer's seeds when it is given no `--corpus`: small models written here that use Xcode's whole
/// vocabulary, then the `contents` of every readable version of the real models the lab finds
/// (`ModelCorpus.locations()`: `shared/model-corpus` and `shared/models`, or `$STACKLAB_MODEL_CORPUS`).
///
/// Valid seeds are what make mutations reach past the XML parser: with no seed every mutant of an empty input
/// is rejected at its first byte.
enum ModelFileSeeds {
    /// The built-in seeds and the real models found, each a `contents` file's bytes.
    static func all() -> [Data] {
        builtIn.map { Data($0.utf8) } + real()
    }

    /// Every readable version's `contents` in the corpora found, in path order.
    static func real() -> [Data] {
        var seeds: [Data] = []
        for location in ModelCorpus.locations() {
            guard let corpus = try? ModelCorpus(root: location) else { continue }
            for entry in corpus.entries {
                guard let url = entry.url else { continue }
                let versions = (try? FileManager.default.contentsOfDirectory(atPath: url.path).sorted()) ?? []
                let folders =
                    url.pathExtension == "xcdatamodel" ? [url] : versions.map { url.appendingPathComponent($0) }
                for folder in folders where folder.pathExtension == "xcdatamodel" {
                    if let data = FileManager.default.contents(atPath: folder.appendingPathComponent("contents").path) {
                        seeds.append(data)
                    }
                }
            }
        }
        return seeds
    }

    static let header = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" \
        systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        """

    /// Small models, each exercising a part of the vocabulary.
    static let builtIn: [String] = [
        header + """
                <entity name="Note" representedClassName="Note" syncable="YES" codeGenerationType="class">
                    <attribute name="title" attributeType="String" minValueString="1" maxValueString="80" regularExpressionString="[A-Z].*" spotlightIndexingEnabled="YES" storedInTruthFile="YES" allowsCloudEncryption="YES"/>
                    <attribute name="created" optional="YES" attributeType="Date" minDateTimeInterval="0" maxDateTimeInterval="86400" defaultDateTimeInterval="3600" usesScalarValueType="NO" preserveAfterDeletion="YES"/>
                    <attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                    <attribute name="rank" optional="YES" attributeType="Integer 32" minValueString="0" maxValueString="5" defaultValueString="3" usesScalarValueType="YES"/>
                    <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="notes" inverseEntity="Tag"/>
                    <userInfo>
                        <entry key="owner" value="sync"/>
                    </userInfo>
                </entity>
                <entity name="Tag" representedClassName="Tag" syncable="YES">
                    <attribute name="label" optional="YES" attributeType="String"/>
                    <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Note" inverseName="tags" inverseEntity="Note"/>
                </entity>
                <fetchRequest name="top" entity="Note" predicateString="rank &gt;= $MIN" fetchLimit="10" fetchBatchSize="20" includePropertyValues="NO"/>
                <configuration name="Cloud" usedWithCloudKit="YES">
                    <memberEntity name="Note"/>
                    <memberEntity name="Tag"/>
                </configuration>
            </model>
            """,
        header + """
                <entity name="Shape" representedClassName="Shape" isAbstract="YES" elementID="Figure" versionHashModifier="2">
                    <attribute name="name" attributeType="String"/>
                    <uniquenessConstraints>
                        <uniquenessConstraint>
                            <constraint value="name"/>
                        </uniquenessConstraint>
                    </uniquenessConstraints>
                </entity>
                <entity name="Circle" representedClassName="Circle" parentEntity="Shape">
                    <attribute name="radius" optional="YES" attributeType="Double" minValueString="0" defaultValueString="1.0" usesScalarValueType="YES"/>
                    <fetchIndex name="byRadius">
                        <fetchIndexElement property="radius" type="Binary" order="descending"/>
                    </fetchIndex>
                </entity>
                <entity name="Square" representedClassName="Square" parentEntity="Shape">
                    <attribute name="side" optional="YES" attributeType="Float" indexed="YES"/>
                    <compoundIndexes>
                        <compoundIndex>
                            <index value="side"/>
                            <index value="name"/>
                        </compoundIndex>
                    </compoundIndexes>
                </entity>
            </model>
            """,
        header + """
                <entity name="Author" representedClassName="Author">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="bookCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="books.@count" usesScalarValueType="YES"/>
                    <attribute name="id" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                    <attribute name="site" optional="YES" attributeType="URI"/>
                    <attribute name="style" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>
                    <relationship name="books" optional="YES" toMany="YES" minCount="0" maxCount="50" deletionRule="Deny" ordered="YES" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
                    <fetchedProperty name="namesakes" optional="YES">
                        <fetchRequest name="fetchedPropertyFetchRequest" entity="Author" predicateString="name == $FETCH_SOURCE.name"/>
                    </fetchedProperty>
                </entity>
                <entity name="Book" representedClassName="Book">
                    <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="0.0"/>
                    <attribute name="isbn" optional="YES" attributeType="String"/>
                    <relationship name="author" optional="YES" maxCount="1" deletionRule="No Action" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
                </entity>
                <fetchRequest name="byName" entity="Author" predicateString="name BEGINSWITH[cd] $PREFIX" resultType="1"/>
                <fetchRequest name="names" entity="Author" resultType="2" returnDistinctResults="YES"/>
            </model>
            """,
    ]
}
