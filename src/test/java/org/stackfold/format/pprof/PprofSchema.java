package org.stackfold.format.pprof;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Label;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Type;
import com.google.protobuf.DescriptorProtos.FieldOptions;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors;

/**
 * The descriptor of google/pprof's {@code proto/profile.proto} (package perftools.profiles), built
 * field by field from the published schema so that protobuf-java can check and decode our output as
 * a {@link com.google.protobuf.DynamicMessage} without protoc. With {@code packed} false, repeated
 * integers are written one tag each (legal proto encoding the reader must also accept).
 */
final class PprofSchema {
    private PprofSchema() {
    }

    static Descriptors.Descriptor profile(boolean packed) {
        FileDescriptorProto file = FileDescriptorProto.newBuilder()
                .setName("profile.proto").setPackage("perftools.profiles").setSyntax("proto3")
                .addMessageType(DescriptorProto.newBuilder().setName("Profile")
                        .addField(message("sample_type", 1, "ValueType", true))
                        .addField(message("sample", 2, "Sample", true))
                        .addField(message("mapping", 3, "Mapping", true))
                        .addField(message("location", 4, "Location", true))
                        .addField(message("function", 5, "Function", true))
                        .addField(scalar("string_table", 6, Type.TYPE_STRING, true, packed))
                        .addField(scalar("drop_frames", 7, Type.TYPE_INT64, false, packed))
                        .addField(scalar("keep_frames", 8, Type.TYPE_INT64, false, packed))
                        .addField(scalar("time_nanos", 9, Type.TYPE_INT64, false, packed))
                        .addField(scalar("duration_nanos", 10, Type.TYPE_INT64, false, packed))
                        .addField(message("period_type", 11, "ValueType", false))
                        .addField(scalar("period", 12, Type.TYPE_INT64, false, packed))
                        .addField(scalar("comment", 13, Type.TYPE_INT64, true, packed))
                        .addField(scalar("default_sample_type", 14, Type.TYPE_INT64, false, packed))
                        .addField(scalar("doc_url", 15, Type.TYPE_INT64, false, packed)))
                .addMessageType(DescriptorProto.newBuilder().setName("ValueType")
                        .addField(scalar("type", 1, Type.TYPE_INT64, false, packed))
                        .addField(scalar("unit", 2, Type.TYPE_INT64, false, packed)))
                .addMessageType(DescriptorProto.newBuilder().setName("Sample")
                        .addField(scalar("location_id", 1, Type.TYPE_UINT64, true, packed))
                        .addField(scalar("value", 2, Type.TYPE_INT64, true, packed))
                        .addField(message("label", 3, "Label", true)))
                .addMessageType(DescriptorProto.newBuilder().setName("Label")
                        .addField(scalar("key", 1, Type.TYPE_INT64, false, packed))
                        .addField(scalar("str", 2, Type.TYPE_INT64, false, packed))
                        .addField(scalar("num", 3, Type.TYPE_INT64, false, packed))
                        .addField(scalar("num_unit", 4, Type.TYPE_INT64, false, packed)))
                .addMessageType(DescriptorProto.newBuilder().setName("Mapping")
                        .addField(scalar("id", 1, Type.TYPE_UINT64, false, packed))
                        .addField(scalar("memory_start", 2, Type.TYPE_UINT64, false, packed))
                        .addField(scalar("memory_limit", 3, Type.TYPE_UINT64, false, packed))
                        .addField(scalar("file_offset", 4, Type.TYPE_UINT64, false, packed))
                        .addField(scalar("filename", 5, Type.TYPE_INT64, false, packed))
                        .addField(scalar("build_id", 6, Type.TYPE_INT64, false, packed))
                        .addField(scalar("has_functions", 7, Type.TYPE_BOOL, false, packed))
                        .addField(scalar("has_filenames", 8, Type.TYPE_BOOL, false, packed))
                        .addField(scalar("has_line_numbers", 9, Type.TYPE_BOOL, false, packed))
                        .addField(scalar("has_inline_frames", 10, Type.TYPE_BOOL, false, packed)))
                .addMessageType(DescriptorProto.newBuilder().setName("Location")
                        .addField(scalar("id", 1, Type.TYPE_UINT64, false, packed))
                        .addField(scalar("mapping_id", 2, Type.TYPE_UINT64, false, packed))
                        .addField(scalar("address", 3, Type.TYPE_UINT64, false, packed))
                        .addField(message("line", 4, "Line", true))
                        .addField(scalar("is_folded", 5, Type.TYPE_BOOL, false, packed)))
                .addMessageType(DescriptorProto.newBuilder().setName("Line")
                        .addField(scalar("function_id", 1, Type.TYPE_UINT64, false, packed))
                        .addField(scalar("line", 2, Type.TYPE_INT64, false, packed))
                        .addField(scalar("column", 3, Type.TYPE_INT64, false, packed)))
                .addMessageType(DescriptorProto.newBuilder().setName("Function")
                        .addField(scalar("id", 1, Type.TYPE_UINT64, false, packed))
                        .addField(scalar("name", 2, Type.TYPE_INT64, false, packed))
                        .addField(scalar("system_name", 3, Type.TYPE_INT64, false, packed))
                        .addField(scalar("filename", 4, Type.TYPE_INT64, false, packed))
                        .addField(scalar("start_line", 5, Type.TYPE_INT64, false, packed)))
                .build();
        try {
            return Descriptors.FileDescriptor.buildFrom(file, new Descriptors.FileDescriptor[0])
                    .findMessageTypeByName("Profile");
        } catch (Descriptors.DescriptorValidationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static FieldDescriptorProto message(String name, int number, String type, boolean repeated) {
        return FieldDescriptorProto.newBuilder().setName(name).setNumber(number).setType(Type.TYPE_MESSAGE)
                .setTypeName(".perftools.profiles." + type)
                .setLabel(repeated ? Label.LABEL_REPEATED : Label.LABEL_OPTIONAL).build();
    }

    private static FieldDescriptorProto scalar(String name, int number, Type type, boolean repeated, boolean packed) {
        FieldDescriptorProto.Builder b = FieldDescriptorProto.newBuilder().setName(name).setNumber(number).setType(type)
                .setLabel(repeated ? Label.LABEL_REPEATED : Label.LABEL_OPTIONAL);
        if (repeated && type != Type.TYPE_STRING) {
            b.setOptions(FieldOptions.newBuilder().setPacked(packed));
        }
        return b.build();
    }
}
